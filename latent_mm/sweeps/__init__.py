"""One runner for every sweep: parallel trials (joblib, or a Dask cluster), a progress bar, a results file that makes an interrupted sweep resume where it stopped, records that name the code that produced them, and `verify_results`, which reruns committed trials and compares."""

from .records import config_key, record_digest, parse_record, load_results, ResultsFile
from .provenance import (NOT_FINGERPRINTED, STALE, trial_name, resolved_config, code_modules, code_text,
                         code_fingerprint, record_call, StaleResultsError, stale_policy, stale_records, stale_reason)
from .run import run_trials, stop_workers, stop_workers_at_exit
from .verify import (STRATA, TRIALS, is_time, compare_results, sample_trials, register_trial, registered_trial, Verification,
                     verify_results)
from .experiment import (N_JOBS, FRACTION, POSITIVE, NON_NEGATIVE, FOLDER, COMMON_OPTIONS, option_rule, at_least,
                         OptionError, check_option, greater_than, about, Experiment, experiment, find_experiments)

__all__ = ['NOT_FINGERPRINTED', 'STALE', 'STRATA', 'TRIALS', 'N_JOBS', 'FRACTION', 'POSITIVE', 'NON_NEGATIVE', 'FOLDER',
           'COMMON_OPTIONS', 'config_key', 'record_digest', 'parse_record', 'load_results', 'trial_name',
           'resolved_config', 'code_modules', 'code_text', 'code_fingerprint', 'record_call', 'StaleResultsError',
           'stale_policy', 'stale_records', 'stale_reason', 'ResultsFile', 'run_trials', 'stop_workers',
           'stop_workers_at_exit', 'is_time', 'compare_results', 'sample_trials', 'register_trial',
           'registered_trial', 'Verification', 'verify_results', 'option_rule', 'at_least', 'OptionError',
           'check_option', 'greater_than', 'about', 'Experiment', 'experiment', 'find_experiments']
