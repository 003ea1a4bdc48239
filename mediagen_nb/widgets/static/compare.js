// placeholder during dev
