package dev.outboxer.admin;

import java.util.List;

/**
 * The JSON body of a bulk retry or discard: either message ids or a group key, never both. An
 * empty selection is refused rather than read as "everything".
 */
public class Selection {

  /** The message ids; with {@code group} unset. */
  public List<Long> ids;

  /** A group key: every dead message of that group; with {@code ids} unset. */
  public String group;
}
