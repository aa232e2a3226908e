"""Clank! Legacy: Acquisitions Incorporated — content only so far (no engine, not registered)."""
