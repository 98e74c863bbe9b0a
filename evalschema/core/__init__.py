"""Data and formatting every layer uses: findings and reports, messages, display, limits, dates, extras."""
