from freezer.cli import main

raise SystemExit(main())
