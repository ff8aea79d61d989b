from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/dataset.smk"
include: "workflow/rules/steps.smk"
include: "workflow/rules/statistics.smk"
include: "workflow/rules/writing.smk"
include: "workflow/rules/wordings.smk"
include: "workflow/rules/provenance.smk"
include: "workflow/rules/compare.smk"
include: "workflow/rules/interventions.smk"
include: "workflow/rules/impact.smk"
include: "workflow/rules/names.smk"
include: "workflow/rules/calibration.smk"


# The first screen of `snakemake --report`: the run's headlines once its first page is made.
report: report_front()


rule all:
    input:
        get_final_output(),


# While model jobs run, a line every few seconds: questions answered of asked, rate, time left
# (asking/progress.py; each job keeps a file under logs/progress/).
onstart:
    from hiremeornot.asking import progress

    progress.watch("logs/progress", since=RUN_STARTED)


# What the terminal shows when the run ends (writing/closing.py): the findings and where to read
# on, or where the error is and how to resume. Imported here only, when the run has ended.
onsuccess:
    from hiremeornot.writing import closing

    cells = [(p, contrast, m) for p, contrast in CONTRASTS.items() for m in MODELS]
    aligned = [
        p for p, contrast in CONTRASTS.items() if plan.aligned(config, contrast)
    ]
    print(closing.closing_block(cells, since=RUN_STARTED, aligned=aligned))


onerror:
    from hiremeornot.writing import closing

    print(closing.failure_block(log))
