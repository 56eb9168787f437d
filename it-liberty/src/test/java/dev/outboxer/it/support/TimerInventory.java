package dev.outboxer.it.support;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerService;
import java.util.List;

/** Lists the EJB timers of the module (Outboxer's timer bean lives in the same WAR). */
@Stateless
public class TimerInventory {

  @Resource
  TimerService timers;

  public List<String> infos() {
    return timers.getAllTimers().stream().map(Timer::getInfo).map(String::valueOf).toList();
  }
}
