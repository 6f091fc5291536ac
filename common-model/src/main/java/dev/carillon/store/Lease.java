package dev.carillon.store;

/** A running claim as a worker holds it: the instance and the attempt that fences it. */
public record Lease(long instanceId, int attempt) {}
