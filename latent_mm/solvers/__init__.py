"""Structural SVM solvers: the oracle and regularizer contracts, the bound solvers and their registry."""

from .oracle import Augmented, EnumeratedSSVM, Oracle, random_ssvm
from .regularizers import L2, ElasticForm, GroupL2, Regularizer
from .base import BoundSolver, SSVMResult, SSVMState, primal_objective, solve_cvxpy
from .bcfw import BCFW, bcfw
from .cutting_plane import CutPlaneState, CutSet, CuttingPlane, cutting_plane, simplex_qp
from .sdm import SDM, SDMState, sdm
from .subgradient import Subgradient, subgradient_descent
from .registry import (SOLVERS, AutoSolver, BCFWThenCuttingPlane, SolverRun, bcfw_then_cutting_plane, make_solver,
                       room_below, solve_ssvm, solver_options)

__all__ = ['Augmented', 'SOLVERS', 'Oracle', 'EnumeratedSSVM', 'random_ssvm', 'Regularizer', 'ElasticForm', 'L2', 'GroupL2', 'primal_objective',
           'solve_cvxpy', 'SSVMState', 'SSVMResult', 'BoundSolver', 'bcfw', 'BCFW', 'simplex_qp', 'CutSet', 'CutPlaneState',
           'cutting_plane', 'CuttingPlane', 'SDMState', 'sdm', 'SDM', 'bcfw_then_cutting_plane', 'solve_ssvm',
           'AutoSolver', 'BCFWThenCuttingPlane', 'subgradient_descent', 'Subgradient', 'solver_options', 'make_solver',
           'room_below', 'SolverRun']
