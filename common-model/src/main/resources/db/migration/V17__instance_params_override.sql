-- Carillon schema, version 17: a run-now may carry params of its own.
--
-- POST /api/v1/tasks/{id}/runs {"params": {...}} (and schedctl run --param k=v) runs a task once
-- with some of its params changed. The override is kept with the instance, not the task: its
-- top-level fields replace the task's fields of the same name when a worker runs it (a shallow
-- merge, dev.carillon.spec.ParamsOverride), every attempt and every re-run of that instance alike,
-- and the task's own params stay as they are for every other window. NULL for every instance the
-- trigger creates.
--
-- At most TaskDefinition.MAX_PARAMS_BYTES of UTF-8, checked by the API before the insert; TEXT like
-- task_definition.params (no key or index on it). The history table gets the same column: archiving
-- copies every live column by name.

ALTER TABLE task_instance ADD COLUMN params_override TEXT;

ALTER TABLE task_instance_history ADD COLUMN params_override TEXT;
