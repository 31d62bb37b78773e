"""Rating any policy on a fixed, versioned protocol: a reference ladder, one number with its interval."""
