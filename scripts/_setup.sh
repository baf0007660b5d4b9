# Sourced by scripts/demo, scripts/test, scripts/bench: make .venv and install what is missing.
# Idempotent: a stamp file records what was installed for which pyproject.toml; a second run
# with nothing changed installs nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${1:-}"          # "" or "test" etc.
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.magdomino-installed${EXTRAS:+-$EXTRAS}"
want="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup: installing magdomino${EXTRAS:+[$EXTRAS]} into .venv (first run only)" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT${EXTRAS:+[$EXTRAS]}" >&2
    echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
