"""Root conftest: nothing to configure; the plugin is registered by its entry point."""
