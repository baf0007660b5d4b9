# Sourced by scripts/test after _setup.sh: headless Chromium for the browser tests (the report's,
# tests/faces/test_report.py; the 3D view's; the lab's, tests/faces/test_lab_browser.py, which
# drive it with Playwright). Installed from the system's packages when missing, where it
# can be (root and apt-get); quietly (apt's output goes to a log) and once: a failed attempt
# is remembered, so later runs do not retry; those tests then skip and say why (under CI,
# with CI set, they fail instead).
browser_log="$VENV/browser-install.log"
browser_failed="$VENV/.chromium-install-failed"
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
   && [ -z "${MAGDOMINO_CHROMIUM:-}" ] && [ ! -f "$browser_failed" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing chromium for the browser tests (log: $browser_log)" >&2
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$browser_log" 2>&1; then
            echo "setup: chromium could not be installed (see $browser_log); the browser tests will skip" >&2
            touch "$browser_failed"
        fi
    else
        echo "setup: no chromium and no root apt-get to install it; the browser tests will skip" >&2
        touch "$browser_failed"
    fi
fi
