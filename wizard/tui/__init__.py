"""The interactive wizard (Textual). Imports no torch, accelerate or deepspeed."""
