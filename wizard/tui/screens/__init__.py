"""Screens of the wizard: main (settings), review, help and small dialogs."""
