"""The validation studies: the measurements behind ``docs/validation/``, apart from the maintainer's tools in ``scripts/``.

Each module is run from the checkout's top folder as ``python -m validation.NAME ...``; they
import each other as a package (``from validation import toy_positions``). What each
measures, what it needs and how to re-run it: ``validation/README.md``. Their raw results
are kept in ``assets/validation/`` (:data:`ASSETS`).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The checkout's top folder (scenarios, tests' data and assets are found from it)."""
ASSETS = ROOT / "assets" / "validation"
"""Where the studies' raw results are kept (JSON and JSON lines), cited by the validation pages."""
