from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/dataset.smk"
include: "workflow/rules/steps.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/wordings.smk"
include: "workflow/rules/audit.smk"
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
