"""Evaluation: eval sets, grading, runs through ``Pipeline.ask``, calibration and reports.

evalset    load and validate YAML/JSONL eval sets
grading    grade one item from its Result (trap: declined...; scenario: strong...)
runner     run a set through the pipeline, write {"run", "items"} atomically, resumable
metrics    ROC AUC, bootstrap and Wilson intervals, thresholds, risk-coverage
calibrate  gate calibration from a results file; --write into the settings TOML
summary    headline counts and tables for the report
report     HTML page + Markdown twin + PNG plots
datasets   PubMedQA and SciFact corpora and eval sets
"""
