# act: the Python package of act's tools (standard library only).
# Placeholder: branch pylat replaces this file (VERSION, the C programs'
# exit statuses); nothing here is used.
