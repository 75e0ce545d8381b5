"""The match event store: matches, their seats and append-only event logs, chance drawn from the
committed seed, bots played by workers, and provable-fairness verification."""
