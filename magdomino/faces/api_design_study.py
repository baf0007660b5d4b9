"""The Python face's design studies: :func:`study` and its result, :class:`Study` (``md.study``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from magdomino.faces.api import executor_settings
from magdomino.faces.notebook import Picture, Result

# The design study and its view are imported when a study runs or draws: md.study alone loads neither.


def study(rule: str, seats, vary: dict, deals: int = 6, *, seed: int = 0, physics: str = "dynamics", jobs: int | None = None,
          progress: bool = True, **options) -> Study:
    """A design study (``magdomino study``): per value of ``vary`` (``{"magnets_scale": [0.9, 1.0]}``,
    any preset key; several make a grid), ``deals`` deals between ``seats``, and the game-design
    metrics with 95 % intervals. ``options``: preset, preset_overrides, magnets,
    max_placements, skilled, out_dir, resume (:func:`magdomino.games.design_study.run_study`)."""
    from magdomino.games.design_study import run_study

    seats = seats.split(",") if isinstance(seats, str) else list(seats)
    return Study(run_study(rule, seats, deals, vary, seed=seed, physics=physics, jobs=jobs, progress=progress,
                           **executor_settings(jobs, options)))


class Study(Result):
    """A design study: one row per value, each metric with its 95 % interval (``doc``: the JSON document)."""

    def __init__(self, doc: dict):
        from magdomino.faces.design_study_view import study_table

        self.doc = doc
        self._header, self._table = study_table(doc)
        self._title = (f"study of {doc['rule']}, seats {', '.join(doc['seats'])}, {doc['deals']} deals per value, "
                       f"engine {doc['physics']}")

    def _rows(self):
        return self._table

    def to_rows(self) -> list[dict]:
        """One row per value and metric, numbers only: the varied keys' values, ``metric``,
        ``value``, ``low``, ``high`` (the 95 % interval) and ``n`` (deals or games counted)."""
        rows = []
        for point in self.doc["points"]:
            for name in self.doc["metrics"]:
                m = point["metrics"].get(name) or {"value": None, "ci": [None, None], "n": 0}
                rows.append({**point["values"], "metric": name, "value": m["value"], "low": m["ci"][0], "high": m["ci"][1],
                             "n": m["n"]})
        return rows

    def to_dict(self) -> dict:
        return self.doc

    def figure(self) -> Picture:
        """Each metric against the parameter, with its interval band."""
        from magdomino.faces.design_study_view import study_figure

        with tempfile.TemporaryDirectory(prefix="magdomino-study-") as folder:
            return Picture(Path(study_figure(self.doc, Path(folder) / "study.png")).read_bytes())

    def _repr_html_(self) -> str:
        return self.figure().html() + super()._repr_html_()
