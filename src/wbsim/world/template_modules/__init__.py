"""wbsim's own JavaScript implementations of Webots' template modules (data files, no Python)."""
