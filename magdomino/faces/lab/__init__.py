"""The tower lab: build, watch, ask the odds and play Magnetic Domino in a browser
(``magdomino lab``; needs ``pip install 'magdomino[lab]'``).

Built on NiceGUI: its ``ui.scene`` is a three.js view (turn, zoom, clickable objects, poses
sent from Python), beside a full Quasar panel (lists, switches, uploads, code blocks); each
browser tab gets its own page and state, and slow work runs in background tasks. That is
the whole of what the lab needs, with no JavaScript of our own; viser, the other
candidate, draws 3D as well but its panel is a small set of controls without lists per
row, per-tab pages or uploads. The server does the physics; the browser shows the poses it
is sent (a placement's motion is replayed from the poses the PyBullet world recorded).

Modules: :mod:`~magdomino.faces.lab.tower` (the construction, ghosts and motions: no
browser, tested alone), :mod:`~magdomino.faces.lab.scene3d` (tiles in the scene),
:mod:`~magdomino.faces.lab.build` (Build mode), :mod:`~magdomino.faces.lab.play` (Play
mode), :mod:`~magdomino.faces.lab.server` (the page and ``serve``). Importing this package
imports none of NiceGUI; ``magdomino lab`` says how to install it when it is missing
(:func:`magdomino.optional.require`).
"""
