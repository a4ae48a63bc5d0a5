"""The shipped task specs (TOML), their trusted scorers and example rewards; see README.md."""
