"""Where a rendered figure's legends lie against the data its plots draw: the checks of issue 27
("legends off the data, on screen and in exports"), shared by the page, export and run tests."""

from __future__ import annotations

from bokeh.models import Legend, Plot

from views.framework.legends import _renderer


def bokeh_legends_inside(root) -> list[str]:
    """Every legend with entries that a Bokeh document's plots draw inside their data area
    (Bokeh's ``center`` layouts) rather than in a side panel: "title: labels" each."""
    found = []
    for fig in root.select({"type": Plot}):
        for legend in fig.center:
            if isinstance(legend, Legend) and legend.items:
                labels = [getattr(item.label, "value", item.label) for item in legend.items]
                found.append(f"{fig.title.text if fig.title else '?'}: {labels}")
    return found


def assert_models_valid_and_legends_outside(models) -> None:
    """Bokeh models (roots of a page's panes, sections or controls) pass Bokeh's validation
    (the errors a served page logs, E-1021 a slider whose start equals its end) and draw no
    legend inside a plot's data area."""
    from bokeh.core.validation import check_integrity

    references = set()
    for model in models:
        references |= model.references()
    errors = check_integrity(references).error
    assert [f"E-{e.code} {e.name}: {e.text}" for e in errors] == []
    assert [found for model in models for found in bokeh_legends_inside(model)] == []


def _data_hits(ax, box, renderer) -> list[str]:
    """What of ``ax``'s drawn data (within its axes: the rest is clipped) falls in the display
    box ``box``: lines, markers, filled areas, bars and images."""
    from matplotlib.collections import PathCollection
    from matplotlib.transforms import Bbox

    area = Bbox.intersection(box, ax.get_window_extent(renderer))
    if area is None:
        return []
    hits = []
    for line in ax.get_lines():
        path = line.get_transform().transform_path(line.get_path())
        if line.get_visible() and len(path.vertices) and path.intersects_bbox(area, filled=False):
            hits.append(f"line {line.get_label()!r}")
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, PathCollection):  # markers at their offsets
            points = collection.get_offset_transform().transform(collection.get_offsets())
            if any(area.contains(x, y) for x, y in points):
                hits.append(f"markers {collection.get_label()!r}")
            continue
        transform = collection.get_transform()
        for path in collection.get_paths():
            if transform.transform_path(path).intersects_bbox(area, filled=True):
                hits.append(f"{type(collection).__name__} {collection.get_label()!r}")
                break
    for artist in [*ax.patches, *ax.images]:
        if artist.get_visible() and artist.get_window_extent(renderer).overlaps(area):
            hits.append(f"{type(artist).__name__}")
    return hits


def matplotlib_legend_problems(fig) -> list[str]:
    """Legends of a rendered matplotlib figure that lie over drawn data, their own plot's or
    a neighbour's, or over a neighbour's data area or title."""
    renderer = _renderer(fig)
    for ax in fig.axes:
        ax.apply_aspect()  # where a square panel is drawn
    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        name = f"{ax.get_title()!r} legend {[t.get_text() for t in legend.texts]}"
        for other in fig.axes:
            if not other.get_visible():
                continue
            hits = _data_hits(other, box, renderer)
            if hits:
                whose = "its own plot" if other is ax else f"the plot {other.get_title()!r}"
                problems.append(f"{name} covers {', '.join(hits)} of {whose}")
            elif other is not ax and (box.overlaps(other.get_window_extent(renderer))
                                      or box.overlaps(other.title.get_window_extent(renderer))):
                problems.append(f"{name} runs into the plot {other.get_title()!r}")
    return problems
