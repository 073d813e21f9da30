"""The per-scenario report: report.html (and map.png) rebuilt from a scenario folder alone."""
from genesis.report.render import open_report, write_report
from genesis.report.scenario import ScenarioFolderError, load_scenario

__all__ = ["ScenarioFolderError", "load_scenario", "open_report", "write_report"]
