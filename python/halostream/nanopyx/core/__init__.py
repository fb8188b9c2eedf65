"""NanoPyx's nanopyx.core, as far as halostream provides it (transform)."""
