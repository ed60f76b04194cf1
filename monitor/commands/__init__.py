"""Command implementations behind `aem` subcommands."""
