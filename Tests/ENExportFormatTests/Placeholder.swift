// Tests for ENExportFormat.
