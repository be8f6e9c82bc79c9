"""The edge: what a change means for cached answers, and the purgers that drop them."""
