"""Storage access: AWS clients and PynamoDB model binding, configured from Settings."""
