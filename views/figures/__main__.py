"""``python -m views.figures``: the gallery's command (``views.figures.command.main``)."""

from views.figures.command import main

raise SystemExit(main())
