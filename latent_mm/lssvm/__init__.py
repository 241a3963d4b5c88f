"""Latent structural SVMs: the model contract and its oracle, the LS-SVM objective, and the estimators of the family."""

from .model import Bags, BaseLatentModel, ClassBlockBound, FixedLatentBound, LatentBinary, LatentModel, LatentMulticlass
from .problem import LatentSSVMProblem
from .estimator import (MAX_TIGHTEN, LatentSSVM, check_latent_data, check_sample_weight, encode_labels, pooled_features,
                        pooled_start)
from .spl import SelfPacedSSVM
from .group_norm import GroupNormSSVM
from .check import ModelContractError, PartialCheckWarning, check_model
from .multiple_instance import MultipleInstance
from ..datasets import toy_bags, toy_localization   # the toy generators live with the data sets

__all__ = ['MAX_TIGHTEN', 'BaseLatentModel', 'LatentModel', 'LatentMulticlass', 'FixedLatentBound', 'ClassBlockBound',
           'LatentSSVMProblem', 'check_latent_data', 'encode_labels', 'check_sample_weight', 'LatentSSVM',
           'pooled_features', 'pooled_start', 'LatentBinary', 'toy_localization', 'SelfPacedSSVM', 'GroupNormSSVM',
           'check_model', 'ModelContractError', 'PartialCheckWarning', 'Bags', 'MultipleInstance', 'toy_bags']
