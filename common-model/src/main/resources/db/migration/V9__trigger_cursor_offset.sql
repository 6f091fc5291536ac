-- Carillon schema, version 9: a trigger cursor also records the UTC offset its task's zone had at
-- the cursor, under the zone rules the trigger used (issue 25).
--
-- Fire times are local wall-clock times, so a cursor really marks a local time. When a tzdata
-- update changes the offset at the cursor (it arrived after the change took effect), the trigger
-- moves the cursor to where that local time is under the new rules, rather than evaluating local
-- times a second time or not at all. NULL for cursors written before this version: they are taken
-- to agree with the rules in force, and get an offset with their next write. Adding a nullable
-- column without a default rewrites nothing.

ALTER TABLE trigger_cursor ADD COLUMN evaluated_offset_seconds INTEGER;
