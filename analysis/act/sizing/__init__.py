"""act_config_helper: writes an act_storage config - the standard Nx load,
or a node's production profile ("Advanced Flash Device Sizing").

tables (asloglatency size tables, drv_ssd defrag lines), rates (the pure
derived rates), config_file (the config text), main (the interactive
dialogue and the options); shared holds the helper's own copies of what
act/ will hold."""
