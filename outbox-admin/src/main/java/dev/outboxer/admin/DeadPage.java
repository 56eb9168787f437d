package dev.outboxer.admin;

import jakarta.json.bind.annotation.JsonbNillable;
import java.util.List;

/**
 * The JSON answer for a page of dead messages.
 *
 * @param messages the page, oldest id first
 * @param nextAfter the {@code after} of the next page, {@code null} when this page is the last
 *
 * <p>Properties without a value are written as {@code null}, not left out.
 */
@JsonbNillable
public record DeadPage(List<DeadMessageView> messages, Long nextAfter) {}
