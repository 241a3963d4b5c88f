"""One runner for every sweep: parallel trials (joblib, or a Dask cluster), a progress bar, a results file that makes an interrupted sweep resume where it stopped, records that name the code that produced them, and `verify_results`, which reruns committed trials and compares."""

from .records import (OLDER_KEYS, config_key, record_digest, ResultsFileError, parse_record, migrate_record, load_results,
                      ResultsFile, migrate_results)
from .provenance import (NOT_FINGERPRINTED, STALE, STRATA, trial_name, resolved_config, code_modules, code_text,
                         code_fingerprint, record_call, is_current, sample_trials, unverified_sample, StaleResultsError,
                         stale_policy, stale_records, stale_reason)
from .platform import (REFERENCE, PLATFORM_VARIABLE, PINS, numpy_level, blas_kernels, platform_tag, on_reference,
                       reference_environment, platform_choice, pinned_environment, platform_note)
from .run import run_trials, on_cluster, stop_workers, stop_workers_at_exit
from .verify import (TRIALS, is_time, compare_results, verify_plan, register_trial, registered_trial, Verification,
                     verify_results, VerificationStatus, verification_status)
from .experiment import (N_JOBS, FRACTION, POSITIVE, NON_NEGATIVE, FOLDER, COMMON_OPTIONS, option_rule, at_least,
                         OptionError, check_option, greater_than, about, Experiment, experiment, find_experiments)

__all__ = ['NOT_FINGERPRINTED', 'STALE', 'STRATA', 'TRIALS', 'OLDER_KEYS', 'N_JOBS', 'FRACTION', 'POSITIVE',
           'NON_NEGATIVE', 'FOLDER', 'COMMON_OPTIONS', 'config_key', 'record_digest', 'ResultsFileError', 'parse_record',
           'migrate_record', 'load_results', 'ResultsFile', 'migrate_results', 'trial_name', 'resolved_config',
           'code_modules', 'code_text', 'code_fingerprint', 'record_call', 'is_current', 'sample_trials',
           'unverified_sample', 'StaleResultsError', 'stale_policy', 'stale_records', 'stale_reason', 'REFERENCE',
           'PLATFORM_VARIABLE', 'PINS', 'numpy_level', 'blas_kernels', 'platform_tag', 'on_reference',
           'reference_environment', 'platform_choice', 'pinned_environment', 'platform_note', 'run_trials',
           'on_cluster', 'stop_workers', 'stop_workers_at_exit', 'is_time', 'compare_results', 'verify_plan',
           'register_trial', 'registered_trial', 'Verification', 'verify_results', 'VerificationStatus',
           'verification_status', 'option_rule', 'at_least', 'OptionError', 'check_option', 'greater_than', 'about',
           'Experiment', 'experiment', 'find_experiments']
