package dev.outboxer.sample.rest;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The sample's REST API, under {@code /orders/api} (context root {@code /orders}). */
@ApplicationPath("/api")
public class OrdersApplication extends Application {}
