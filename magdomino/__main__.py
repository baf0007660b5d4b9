from magdomino.faces.cli import main

raise SystemExit(main())
