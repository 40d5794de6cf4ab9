"""Small UI components: they receive data and callbacks, never the store or the runner."""
