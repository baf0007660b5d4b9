from magdomino.cli import main

raise SystemExit(main())
