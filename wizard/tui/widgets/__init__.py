"""Widgets of the wizard; they post messages and never hold the answers."""
