"""The daemon: data store, bot gateway, job API (santorini serve)."""
