"""The methods a page's (or a run's) declarations name: ``Plot``, ``Section``, ``Timeline`` and
``Mark`` take the functions themselves, written bare in the class body after their ``def``::

    def plane_plot(self): ...
    def plane_cloud(self): ...

    plots = (Plot(plane_plot, cloud=plane_cloud, title=...),)

A declaration keeps the function and keys the panel by its name (``__name__``): the marks'
Bokeh names, the URL, the exports and ``figure(only=...)`` know a panel by it. The framework
calls the owner's attribute of that name (the model's, or the run's), so a subclass that
overrides a method draws its own.
"""

from __future__ import annotations

__all__ = ["method_name"]


def method_name(function, role: str) -> str:
    """The name of ``function``, a method that declaration ``role`` (``"Plot"``, ``"Mark"``,
    ...) names; ``TypeError`` for its name given as text, or anything but a function defined
    with a name (a lambda, a ``functools.partial``)."""
    if isinstance(function, str):
        raise TypeError(f"{role} takes the method itself, not its name {function!r}: declare "
                        f"it after 'def {function}(self, ...)' in the class body and write "
                        f"{function} without quotes")
    name = getattr(function, "__name__", None)
    if not callable(function) or not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"{role} takes a method of the model (or of the run), defined with def "
                        f"in its class body; got {function!r}")
    return name
