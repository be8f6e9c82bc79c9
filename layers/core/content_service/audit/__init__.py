"""The audit log: who changed what and when, one record written in each change's transaction."""
