"""The drawn table (the ``rgb_array`` and ``human`` render modes): needs pygame, the
``render`` extra."""
