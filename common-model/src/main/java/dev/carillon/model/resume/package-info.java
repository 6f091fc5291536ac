/**
 * What a later attempt of a window resumes from: the checkpoints attempts saved and the effects
 * they started and recorded as done (issue 26), as values, and the rules their inputs follow. Pure
 * domain, like the rest of {@code dev.carillon.model}: the store writes and reads these rows, the
 * worker and the operator tools show them.
 */
package dev.carillon.model.resume;
