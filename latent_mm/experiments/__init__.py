"""Experiments that reproduce the papers' tables and figures; `latent-mm reproduce NAME` runs them."""
