"""The inbox's parts: a request's row, its detail and the forms that answer it."""
