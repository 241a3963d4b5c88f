"""The reconfigurable bag-of-words scene model: the model (a `latent_mm.lssvm.BaseLatentModel`) and the oracle of its fixed-latent bound, the Potts coherence bias, scene data and initial parts."""
from .model import ASSIGNMENTS, FILTERS, RBoWBound, RBoWModel
from .data import INITS, initial_parts, neighbour_mean, toy_scenes
from .potts import PottsCoherence, alpha_expansion, grid_edges, potts_budgeted_argmax, potts_coherence, potts_energy

__all__ = ['FILTERS', 'ASSIGNMENTS', 'INITS', 'RBoWModel', 'RBoWBound', 'neighbour_mean', 'toy_scenes', 'grid_edges',
           'potts_energy', 'alpha_expansion', 'initial_parts', 'potts_budgeted_argmax', 'PottsCoherence',
           'potts_coherence']
