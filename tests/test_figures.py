"""Figures the command line writes show their labels whole."""
import matplotlib

matplotlib.use("Agg")

from latent_mm.experiments.spl_motif import plot_figure2


def inside(fig, text) -> bool:
    "Whether a drawn text lies wholly inside its figure."
    fig.canvas.draw()
    box, page = text.get_window_extent(fig.canvas.get_renderer()), fig.bbox
    return page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1


def test_spl_motif_figure2_labels_are_inside_the_figure():
    rows = [dict(method="SPL", protein="P1", fold=f, objective=1.0, hamming_curve=[0.75, 0.6 - 0.05 * f, 0.5])
            for f in range(3)]
    ax = plot_figure2(rows)
    for text in (ax.xaxis.label, ax.yaxis.label, ax.title):
        assert text.get_text() and inside(ax.figure, text), text.get_text()
