# Sourced by scripts/demo, scripts/test, scripts/bench: make .venv and install what is missing.
# Idempotent: a stamp file records what was installed for which pyproject.toml; a second run
# with nothing changed installs nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${1:-}"          # "" or "test" etc.
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "setup: magdomino needs Python >= 3.11; set PYTHON=/path/to/python3.11 (found: $("$PY" --version 2>&1))" >&2
        exit 1
    fi
    echo "setup: creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.magdomino-installed${EXTRAS:+-$EXTRAS}"
want="$(sha256sum < "$ROOT/pyproject.toml" | cut -d' ' -f1)"
installed() { [ -f "$1" ] && [ "$(cat "$1")" = "$want" ]; }
# The test extras include everything the plain install has.
if ! installed "$stamp" && ! { [ -z "$EXTRAS" ] && installed "$VENV/.magdomino-installed-test"; }; then
    echo "setup: installing magdomino${EXTRAS:+[$EXTRAS]} into .venv (first run only)" >&2
    log="$VENV/install.log"
    # pip's chatter goes to a log, shown only if the install fails.
    if ! { "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip &&
           "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT${EXTRAS:+[$EXTRAS]}"; } >"$log" 2>&1; then
        cat "$log" >&2
        echo "setup: installing failed (log above, also in $log)" >&2
        exit 1
    fi
    echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
# The package's bytecode, written beside its sources (up-to-date files are skipped: a few
# milliseconds once written). Where PYTHONDONTWRITEBYTECODE is set, as on the CI machines,
# Python never writes it, and every process would compile the package's modules from source
# on each import: 0.1 s more for each command and each test's subprocess (the CLI tests,
# at 70c27ba: 89 s instead of 76 s on 3 workers).
"$VENV/bin/python" -m compileall -q "$ROOT/magdomino" >/dev/null
