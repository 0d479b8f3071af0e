"""One page per system, named by its slug: ``views.pages.<slug>`` (a module, or a package with
its runs beside it) over the engines of ``dynamics.<slug>``. ``views.EXPLORERS`` registers them."""
