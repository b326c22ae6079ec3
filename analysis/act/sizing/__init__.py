"""act_config_helper: writes an act_storage config - the standard Nx load,
or a node's production profile ("Advanced Flash Device Sizing").

  main         the interactive dialogue and the options
  tables       asloglatency size tables and drv_ssd defrag lines
  rates        the derived rates (pure) and where each came from
  config_file  the config text, its name, writing it

It uses act's version and the C programs' limits, and act.cli's user
error, parser and exit ladder."""

PROG = "act_config_helper.py"
