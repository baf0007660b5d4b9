"""Calibrating one's own set, as the faces show it: ``md.calibrate``, ``magdomino calibrate``,
and the drawings of the measurement set-ups (the protocol of ``docs/howto/calibrate.md``).

The fit is :mod:`magdomino.studies.calibrate`; the file :mod:`magdomino.model.measurements`.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

from magdomino.checks import check_choice, check_count, check_number
from magdomino.errors import ARGUMENTS, InputError
from magdomino.faces.running import check_outputs, write_json
from magdomino.model.measurements import load_measurements, measurements_from_dict
from magdomino.model.presets import Preset, load_preset, write_preset
from magdomino.studies.calibrate import DRAWS, TOLERANCE_SIGMAS, format_table
from magdomino.studies.calibrate import calibrate as fit
from magdomino.version import __version__

SETUPS = ("slide_table", "slide_tile", "overhang", "load", "bounce")
"""The set-ups :func:`setup_figure` draws (one PNG each in ``docs/calibration/``)."""


class Calibration:
    """What :func:`calibrate` found: the fitted preset, its parameters with their 95 %
    intervals, and each measurement against the preset's prediction.

    Attributes
    ----------
    preset : Preset
        The fitted preset (``save`` writes it).
    parameters : list of dict
        ``name``, ``key``, ``value``, ``low``, ``high``, ``unit``, ``rel_sigma``.
    conflicts : list of str
        Measurements no single parameter reconciles, said plainly.
    result : CalibrationResult
        The library's.
    """

    def __init__(self, result):
        self.result = result
        self.preset = result.preset
        self.parameters = [p.to_dict() for p in result.parameters]
        self.conflicts = list(result.conflicts)

    _header = ["measurement", "what", "readings", "measured", "± (95 %)", "predicted", "inside", "alone"]

    def to_rows(self) -> list[dict]:
        """One dict per measurement (file units)."""
        return [dict(zip(self._header, row)) for row in self._rows()]

    def _rows(self):
        return [[r.key, f"{r.what} ({r.unit})", r.readings, round(r.mean, 3), round(TOLERANCE_SIGMAS * r.sigma, 3),
                 round(r.predicted, 3) if math.isfinite(r.predicted) else None, "yes" if r.inside else "NO", r.alone or "-"]
                for r in self.result.rows]

    def to_dict(self) -> dict:
        """The JSON document of ``magdomino calibrate --json``."""
        doc = {"version": __version__, "seed": self.result.seed, "preset": self.preset.name,
               "tile_size_mm": self.preset.size_mm}
        doc.update(self.result.to_dict())
        return doc

    def save(self, path) -> Path:
        """Write the fitted preset (TOML), loadable wherever a preset is."""
        p = Path(path)
        if p.suffix.lower() != ".toml":
            raise InputError(ARGUMENTS, "path", f"expected a .toml file, got {path}")
        try:
            return write_preset(self.preset, p)
        except OSError as exc:
            raise InputError(ARGUMENTS, "path", f"expected a file that can be written, got {path} ({exc.strerror})") from None

    def __repr__(self) -> str:
        return format_table(self.result)

    def _repr_html_(self) -> str:
        def table(header, rows, caption):
            head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
            body = "".join("<tr>" + "".join(f"<td>{html.escape('-' if c is None else str(c))}</td>" for c in r) + "</tr>" for r in rows)
            return f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

        params = [[p["name"], p["value"], f"{p['low']} - {p['high']}", p["unit"] or "-", f"{p['rel_sigma']:.1%}"] for p in self.parameters]
        m = self.result.measurements
        out = table(["parameter", "fit", "95 % interval", "unit", "spread"], params,
                    f"calibration of {m.name} (magnet layout {m.layout.name}, {self.result.draws} draws)")
        out += table(self._header, self._rows(), "each measurement against the fitted preset")
        if self.conflicts:
            out += "".join(f"<p><b>{html.escape(c)}</b></p>" for c in self.conflicts)
        return out


def calibrate(measurements, *, draws: int | None = None, seed: int = 0) -> Calibration:
    """Fit a preset to home measurements (a measurement file's path, or its data as a dict).

    ``md.calibrate("docs/calibration/example.toml").save("my_set.toml")``; the file format is
    in :mod:`magdomino.model.measurements`, the models and intervals in
    :mod:`magdomino.studies.calibrate`. Bad input raises InputError (one line: the file or
    the argument, the key, what was expected).
    """
    if isinstance(measurements, dict):
        m = measurements_from_dict(measurements, ARGUMENTS, Path.cwd())
    elif isinstance(measurements, (str, Path)):
        m = load_measurements(measurements)
    else:
        raise InputError(ARGUMENTS, "measurements",
                         f"expected a measurement file's path or its data as a dict, got {type(measurements).__name__}")
    draws = DRAWS if draws is None else int(check_number(ARGUMENTS, "draws", draws, minimum=10, maximum=100_000, integer=True))
    seed = int(check_number(ARGUMENTS, "seed", seed, minimum=0, integer=True))
    return Calibration(fit(m, draws=draws, seed=seed))


# -- the command line -------------------------------------------------------------------------


def _cmd_calibrate(args) -> int:
    if Path(args.out).suffix.lower() != ".toml":
        raise InputError("command line", "--out", f"expected a .toml file (the preset to write), got {args.out}")
    out = Path(args.out)
    if out.is_dir() or not out.parent.is_dir():
        raise InputError("command line", "--out", f"expected a file in an existing directory, got {args.out}")
    check_outputs(args, "--json")
    check_count(args.draws, "--draws", minimum=10, source="command line")
    result = calibrate(args.measurements, draws=args.draws, seed=args.seed)
    print(repr(result))  # noqa: T201 - the calibrate command's answer
    result.save(args.out)
    print(f"\nwrote {args.out} (preset {result.preset.name!r}; use it as preset = \"{args.out}\" or --preset {args.out})")  # noqa: T201 - the calibrate command's answer
    if args.json:
        write_json(args, result.to_dict())
    return 0


def add_calibrate(sub) -> None:
    p = sub.add_parser("calibrate", help="fit a preset to your own set from home measurements (a ruler, a scale, a book)")
    p.add_argument("measurements", metavar="MEASUREMENTS.toml", help="the measurement file (the protocol: docs/howto/calibrate.md)")
    p.add_argument("--out", required=True, metavar="MY_SET.toml", help="the preset to write")
    p.add_argument("--json", metavar="OUT", help="also the fit, the table and the preset as JSON ('-': stdout)")
    p.add_argument("--seed", type=int, default=0, help="seed of the Monte Carlo intervals (default 0)")
    p.add_argument("--draws", type=int, default=DRAWS, help=f"Monte Carlo draws (default {DRAWS})")
    p.set_defaults(func=_cmd_calibrate)


# -- pictures of the set-ups --------------------------------------------------------------------


def setup_figure(kind: str, path, preset="standard") -> Path:  # noqa: PLR0915 - long: see the reason below
    # long: one picture per set-up, each branch drawing its own with the shared tile and note helpers, read top to bottom
    """Draw one measurement set-up (side view, to scale) as a PNG.

    Parameters
    ----------
    kind : {"slide_table", "slide_tile", "overhang", "load", "bounce"}
    path : str or Path
        The PNG to write.
    preset : str or Preset
        Whose tile size is drawn.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyArrowPatch, Polygon, Rectangle

    check_choice(kind, "kind", SETUPS)
    p = preset if isinstance(preset, Preset) else load_preset(preset)
    L, W, t = (float(v) * 1000 for v in p.tile.size)
    fig = Figure(figsize=(6.0, 3.0), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.axis("off")
    tile_kw = {"facecolor": "#f4d35e", "edgecolor": "#333333", "linewidth": 1.2}
    other_kw = {"facecolor": "#ee964b", "edgecolor": "#333333", "linewidth": 1.2}
    magnet_kw = {"facecolor": "#555555", "edgecolor": "none"}

    def tile(x0, z0, length, angle=0.0, kw=tile_kw, magnets=True, pivot=(0.0, 0.0)):
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        rot = lambda pts: [(pivot[0] + c * (x - pivot[0]) - s * (z - pivot[1]),  # noqa: E731
                            pivot[1] + s * (x - pivot[0]) + c * (z - pivot[1])) for x, z in pts]
        ax.add_patch(Polygon(rot([(x0, z0), (x0 + length, z0), (x0 + length, z0 + t), (x0, z0 + t)]), closed=True, **kw))
        if magnets:
            for m in p.tile.magnets:
                mx = x0 + length / 2 + float(m.position[0]) * 1000 * (length / L)
                d = float(m.dimensions[0]) * 1000
                h = float(m.dimensions[-1]) * 1000
                ax.add_patch(Polygon(rot([(mx - d / 2, z0 + t / 2 - h / 2), (mx + d / 2, z0 + t / 2 - h / 2),
                                          (mx + d / 2, z0 + t / 2 + h / 2), (mx - d / 2, z0 + t / 2 + h / 2)]), closed=True, **magnet_kw))

    def note(x, z, text, **kw):
        ax.text(x, z, text, **{"fontsize": 8, **kw})

    ax.plot([-70, 70], [0, 0], color="#6b4f2a", linewidth=3)  # the table
    if kind in ("slide_table", "slide_tile"):
        angle = 25.0
        book = 110.0
        ax.add_patch(Polygon([(-55, 0), (-55 + book * math.cos(math.radians(angle)), book * math.sin(math.radians(angle))),
                              (-55 + book * math.cos(math.radians(angle)), 0)], closed=True, facecolor="#bcd4e6", edgecolor="#333"))
        ax.add_patch(Polygon([(-55, 0), (-55 + book * math.cos(math.radians(angle)), book * math.sin(math.radians(angle))),
                              (-55 + book * math.cos(math.radians(angle)) + 2, book * math.sin(math.radians(angle)) - 4)],
                             closed=True, facecolor="#4a6fa5", edgecolor="#333"))
        pivot = (-55.0, 0.0)
        if kind == "slide_table":
            tile(-55 + 30, 0, L, angle, magnets=False, pivot=pivot)
            note(-60, 58, "1. a tile on the book's cover (the table's material: lay a sheet of it, or tilt a board of it)\n"
                          "2. lift the cover slowly; read the angle when the tile starts to slide", va="top")
        else:
            tile(-55 + 25, 0, L, angle, kw=other_kw, pivot=pivot)
            tile(-55 + 25 + (L - W) / 2, t, W, angle, magnets=False, pivot=pivot)
            note(-60, 58, "1. one tile held on the cover (a thumb at its low end, or tape)\n"
                          "2. a second tile laid across its middle; lift slowly; read the angle at the slide", va="top")
        ax.add_patch(FancyArrowPatch((-20, 0), (-20 + 8, 3.5), connectionstyle="arc3,rad=0.3", arrowstyle="-", color="#333"))
        note(-14, 1, "θ", fontsize=11)
        ax.set_xlim(-70, 70)
        ax.set_ylim(-5, 62)
    elif kind in ("overhang", "load"):
        s = 27.0 if kind == "overhang" else 22.0
        tile(-L / 2, 0, L, kw=other_kw)
        tile(-L / 2 + s, t, L)
        ax.annotate("", xy=(L / 2 + s, 2 * t + 4), xytext=(L / 2, 2 * t + 4), arrowprops={"arrowstyle": "<->", "color": "#c1121f"})
        note(L / 2 + s / 2, 2 * t + 6, "overhang (mm)", ha="center", color="#c1121f")
        if kind == "overhang":
            ax.add_patch(FancyArrowPatch((-L / 2 + s - 16, 1.5 * t), (-L / 2 + s - 2, 1.5 * t), arrowstyle="-|>", mutation_scale=12,
                                         color="#333"))
            note(-L / 2 + s - 40, 1.5 * t - 1, "push\nslowly", fontsize=8)
            note(-65, -6, "push the top tile out along the lower one until it tips; measure how far its end had passed the lower end",
                 va="top")
        else:
            x = L / 2 + s - 2
            ax.plot([x, x], [2 * t, -2], color="#333", linewidth=0.8)
            ax.add_patch(Rectangle((x - 4, -12), 8, 10, facecolor="#8d99ae", edgecolor="#333"))
            note(x + 6, -10, "load (g): add coins or\nclips until it tips", fontsize=8)
            note(-65, -16, "the lower tile at the table's edge; at a set overhang, hang weights from the far end; weigh what tipped it",
                 va="top")
        ax.set_xlim(-70, 80)
        ax.set_ylim(-25, 30)
    else:  # bounce
        h = 40.0
        tile(-L / 2, h, L, magnets=False)
        ax.annotate("", xy=(-L / 2 - 6, 0), xytext=(-L / 2 - 6, h), arrowprops={"arrowstyle": "<->", "color": "#333"})
        note(-L / 2 - 9, h / 2, "height", ha="right")
        tile(L / 2 + 12, 8, L, magnets=False, kw={"facecolor": "none", "edgecolor": "#999", "linewidth": 1, "linestyle": "--"})
        ax.annotate("", xy=(L / 2 + 12 + L + 6, 8), xytext=(L / 2 + 12 + L + 6, 0), arrowprops={"arrowstyle": "<->", "color": "#c1121f"})
        note(L / 2 + 12 + L + 9, 2, "rebound", color="#c1121f")
        ax.add_patch(Circle((0, h + 14), 0.01, color="white"))
        note(-65, -4, "drop a tile flat from a set height beside a ruler (film it with a phone); read the top of the first bounce",
             va="top")
        ax.set_xlim(-70, 100)
        ax.set_ylim(-12, 60)
    fig.savefig(path)
    return Path(path)


def draw_setups(out_dir, preset="standard") -> list[Path]:
    """All the set-ups' pictures, ``out_dir/setup_KIND.png``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [setup_figure(kind, out / f"setup_{kind}.png", preset) for kind in SETUPS]
