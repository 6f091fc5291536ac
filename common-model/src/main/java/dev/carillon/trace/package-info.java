/**
 * Tracing: OpenTelemetry spans for an instance's path from tick to end, one trace per instance
 * derived from its id, W3C trace context in Kafka record headers and in the agent's context.
 */
package dev.carillon.trace;
