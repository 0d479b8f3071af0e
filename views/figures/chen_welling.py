"""Chen & Welling, *Herding as a Learning System with Edge-of-Chaos Dynamics*: the gallery's
entries, each beside the page it uses, judged by the claim functions the pages call."""

from __future__ import annotations

from dynamics import bifurcation as bf
from dynamics import conditional_herding as ch
from dynamics import herding, ising, neuron, torus
from views.figures.entry import Entry

# --- the bifurcation page --------------------------------------------------------------------


def _cascade(e):
    return bf.feigenbaum_claim(e.result().cascade)


# --- the neuron page -------------------------------------------------------------------------


def _sturmian(e):
    r = e.result()
    return neuron.sturmian_claim(r.run, r.words, bound=r.bound)


# --- the torus page --------------------------------------------------------------------------


def _torus(e):
    r = e.result()
    return torus.uniform_filling_claim(r.discrepancy, r.rational_discrepancy)


# --- the herding page ------------------------------------------------------------------------


def _moments(e):
    r = e.result()
    return herding.moment_rates_claim(r.error, r.autocorrelation, r.iid_autocorrelation)


def _attractor(e):
    return herding.attractor_claim(e.jobs["box"].result, e.result().run)


# --- the Ising page --------------------------------------------------------------------------


def _ising(e):
    p = e.result()
    return ising.cluster_exponent_claim(p.sw, p.herd, p.sw_fit, p.herd_fit)


# --- the perceptron cycling page -------------------------------------------------------------


def _boundaries(e):
    r = e.jobs["boundaries"].result
    return ch.boundary_claim(r.vp_error, r.ch_error, hidden=r.hidden)


ENTRIES = (
    Entry("herding.fig1_1", "bifurcation",
          "Chen & Welling, Fig 1.1: the period-doubling cascade of tempered herding",
          _cascade,
          panels=("orbit_annotations", "period_plot", "attractor_plot", "lyapunov_plot")),
    Entry("herding.fig1_8_9", "neuron",
          "Chen & Welling, Figs 1.8-1.9: a single herded neuron writes a Sturmian sequence",
          _sturmian,
          panels=("weights_plot", "stripes_plot", "discrepancy_plot", "words_plot")),
    Entry("herding.fig1_17", "torus",
          "Chen & Welling, Fig 1.17: herding with D = K + 1 states is a rotation on the torus",
          _torus,
          panels=("torus_plot", "rational_plot", "weights_plot", "discrepancy_plot")),
    Entry("herding.fig1_4", "herding",
          "Chen & Welling, Prop 1.2 and Fig 1.4: moment matching and negative autocorrelation",
          _moments, panels=("moment_plot", "autocorrelation_plot"),
          quick=dict(steps=5000)),
    Entry("herding.fig1_10_11", "herding",
          "Chen & Welling, Figs 1.2, 1.10-1.11: the Tipi function, the cones and the attractor",
          _attractor, panels=("cones_plot", "tipi_plot", "box_plot"), runs=("box",),
          quick=dict(box_steps=50_000)),
    Entry("herding.fig1_6_7", "ising",
          "Chen & Welling, Figs 1.6-1.7: herding an Ising lattice at the critical temperature",
          _ising, panels=("sw_image", "herd_image", "cluster_plot", "correlation_plot"),
          knobs=dict(L=100), quick=dict(L=32, steps=300)),
    Entry("herding.fig1_16", "pct",
          "Chen & Welling, Fig 1.16: decision boundaries of the voted perceptron and conditional "
          "herding",
          _boundaries, panels=("vp_plot", "ch_plot"), runs=("boundaries",),
          quick=dict(epochs=60)),
)
