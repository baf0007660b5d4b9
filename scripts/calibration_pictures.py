"""Draw the calibration set-ups of the protocol (docs/howto/calibrate.md) into docs/calibration/ (one PNG each).

Run: PYTHONPATH=. python scripts/calibration_pictures.py
"""

from pathlib import Path

from magdomino.faces.calibration import draw_setups

if __name__ == "__main__":
    for path in draw_setups(Path(__file__).resolve().parent.parent / "docs" / "calibration"):
        print(f"wrote {path}")
