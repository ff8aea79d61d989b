from hiremeornot.cli import main

raise SystemExit(main())
